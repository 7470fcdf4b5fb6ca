package synth

// Fixed wording of site templates and shared boilerplate. The generated
// text around it comes from the word models.

// lang holds one language's fixed wording.
type lang struct {
	code       string
	sections   []string // navigation labels
	footLinks  []string
	widgets    []string // sidebar headings
	related    []string // headings of the related-articles list
	cookies    []string
	accept     []string
	licences   []string // %s: the site's name
	cms        []string
	share      []string
	newsletter []string
	adLabel    []string
	by         string // before an author's name
	views      string // after a view count
	updated    string
	source     string // "originally published at"
	dateLayout string
	tlds       []string
	subs       []string
	syllables  []string // host names (Chinese hosts: pinyin)
	names      []string // authors
}

var english = lang{
	code:      "en",
	sections:  []string{"Home", "News", "World", "Business", "Technology", "Science", "Health", "Sports", "Culture", "Opinion", "Travel", "Food", "Blog", "Docs", "Guides", "Reviews", "Forum", "Events", "Jobs", "Shop", "About", "Contact", "Archive", "Podcasts", "Videos", "Education", "Local", "Weather"},
	footLinks: []string{"About us", "Contact", "Privacy policy", "Terms of use", "Cookie settings", "Careers", "Advertise with us", "Sitemap", "RSS feeds", "Accessibility", "Help centre", "Press"},
	widgets:   []string{"Popular posts", "Recent posts", "Most read", "Editor's picks", "Categories", "Tags", "Archives", "Trending now", "From our partners", "Latest comments"},
	related:   []string{"Related articles", "You may also like", "Read next", "More from this section", "Recommended for you"},
	cookies: []string{
		"We use cookies to improve your experience on our website. By continuing to browse the site you agree to our use of cookies.",
		"This website uses cookies to analyse traffic, remember your preferences and show you personalised content and advertising. You can change your settings at any time in our cookie policy.",
		"Cookies help us deliver our services. By using our services, you agree to our use of cookies and similar technologies for the purposes described in our privacy notice.",
		"We and our partners store and access information on your device, such as cookies, to measure audiences and to show personalised ads and content.",
	},
	accept: []string{"Accept all", "OK", "Got it", "I agree", "Accept and close"},
	licences: []string{
		"Copyright © 2009-2024 %s. All rights reserved. No part of this site may be reproduced without written permission.",
		"© %s. Content on this site is licensed under a Creative Commons Attribution-ShareAlike 4.0 International License unless otherwise noted.",
		"Copyright %s and its contributors. Text is available under the Creative Commons Attribution 4.0 licence; additional terms may apply.",
		"© 2024 %s Media Group. All rights reserved. Reproduction in whole or in part without permission is prohibited.",
		"%s is an independent publication. All trademarks are the property of their respective owners. © All rights reserved.",
		"All content © %s unless stated otherwise. Views expressed by contributors are their own and do not represent the editors.",
	},
	cms:        []string{"WordPress", "Drupal", "Ghost", "Joomla", "Hugo", "Jekyll", "Squarespace", "Wix", "Blogger", "Medium"},
	share:      []string{"Share this article: Facebook Twitter LinkedIn Email Print", "Share: Facebook · X · WhatsApp · Reddit · Copy link", "Tweet Share Pin Email", "Share on Facebook Share on Twitter Share via email"},
	newsletter: []string{"Sign up for our newsletter and get the best stories delivered to your inbox every morning. Subscribe", "Get our weekly digest: the most important stories of the week, free in your inbox. Enter your email address Sign up", "Never miss a story. Join thousands of readers who receive our newsletter. Subscribe now"},
	adLabel:    []string{"Advertisement", "Sponsored", "Ad", "Promoted content", "Partner content"},
	by:         "By",
	views:      "views",
	updated:    "Updated",
	source:     "This article was originally published at",
	dateLayout: "January 2, 2006 15:04",
	tlds:       []string{".com", ".org", ".net", ".io", ".info", ".co.uk", ".news"},
	subs:       []string{"www.", "www.", "www.", "news.", "blog.", "docs.", "", "m."},
	names:      []string{"Alice Martin", "James Walker", "Maria Garcia", "David Chen", "Sarah Johnson", "Thomas Muller", "Emma Wilson", "Daniel Brown", "Laura Rossi", "Michael Lee", "Olivia Taylor", "Peter Novak", "Anna Kowalski", "Robert Smith", "Sofia Hernandez", "Editorial staff"},
}

var chinese = lang{
	code:      "zh",
	sections:  []string{"首页", "新闻", "国内", "国际", "财经", "科技", "体育", "娱乐", "汽车", "房产", "教育", "健康", "旅游", "文化", "军事", "社会", "评论", "视频", "图片", "论坛", "博客", "下载", "关于我们", "联系我们"},
	footLinks: []string{"关于我们", "联系我们", "广告服务", "隐私政策", "用户协议", "网站地图", "招聘信息", "意见反馈", "免责声明", "友情链接"},
	widgets:   []string{"热门文章", "最新文章", "推荐阅读", "热门标签", "文章分类", "文章归档", "排行榜", "精彩专题", "最新评论"},
	related:   []string{"相关文章", "相关阅读", "猜你喜欢", "延伸阅读", "热门推荐"},
	cookies: []string{
		"本网站使用Cookie来改善您的浏览体验。继续浏览本网站即表示您同意我们使用Cookie。",
		"我们使用Cookie和类似技术来分析流量、记住您的偏好并向您展示个性化内容和广告。您可以随时在隐私政策中更改设置。",
		"为了提供更好的服务，本站会使用Cookie收集匿名访问数据。详情请阅读我们的隐私声明。",
	},
	accept: []string{"接受", "同意", "我知道了", "确定"},
	licences: []string{
		"版权所有 © 2009-2024 %s 保留所有权利。未经书面许可，不得转载、摘编或以其他方式使用本网站内容。",
		"© %s 本站内容采用知识共享署名-相同方式共享4.0国际许可协议进行许可。",
		"%s 版权所有，转载请注明出处。本站部分内容来自网络，如有侵权请联系删除。",
		"Copyright © %s All Rights Reserved 增值电信业务经营许可证 京ICP备12345678号",
		"本站所有文章仅代表作者观点，不代表%s立场。版权所有，未经授权禁止复制或建立镜像。",
	},
	cms:        []string{"WordPress", "DedeCMS", "Discuz!", "Typecho", "PHPCMS", "帝国CMS", "Z-Blog", "Hexo"},
	share:      []string{"分享到：微信 微博 QQ空间 豆瓣", "分享：微信 朋友圈 新浪微博 复制链接", "扫一扫分享到微信朋友圈"},
	newsletter: []string{"订阅我们的邮件，每天早上获取最新资讯。立即订阅", "关注我们的微信公众号，第一时间获取精彩内容。扫码关注", "下载客户端，随时随地阅读新闻。立即下载"},
	adLabel:    []string{"广告", "推广", "赞助内容", "合作推广"},
	by:         "作者：",
	views:      "次阅读",
	updated:    "更新于",
	source:     "本文转载自",
	dateLayout: "2006年01月02日 15:04",
	tlds:       []string{".cn", ".com.cn", ".com", ".net", ".org.cn"},
	subs:       []string{"www.", "www.", "news.", "blog.", "bbs.", ""},
	syllables:  []string{"xin", "wen", "zhong", "guo", "hua", "tian", "di", "ren", "min", "bao", "ke", "ji", "shu", "ju", "wang", "dian", "zi", "jia", "yuan", "hai", "shan", "jing", "dong", "nan", "bei", "xi", "chuan", "long", "feng", "yun", "lan", "hong", "mei", "an", "kang", "le", "bo", "tong", "xun", "da"},
	names:      []string{"张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊", "赵敏", "黄强", "周杰", "吴婷", "本站编辑", "特约记者"},
}

// Class names of the many hosts that lay a page out in divs.
var genericClasses = []string{"box", "wrap", "container", "inner", "row", "col", "col-md-4", "col-md-8", "block", "region", "section", "c1", "c2", "w-100", "pad", "clearfix", "x1", "mod", "panel", "area", "lft", "rgt", "bd", "hd", "ft", "main-wrap", "widget", "list", "s-box", "g-row"}

// Markup that carries no text: scripts, styles, icons.
var scripts = []string{
	`<script async src="https://www.googletagmanager.com/gtag/js?id=G-%s"></script><script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config','G-%s');</script>`,
	`<script>(function(){var s=document.createElement('script');s.src='https://cdn.stats.example.net/t.js?site=%s';s.async=true;document.head.appendChild(s);})();var _id='%s';</script>`,
	`<script src="https://static.ads.example.com/loader.js" data-site="%s" data-zone="%s" async></script>`,
	`<script>var _hmt=_hmt||[];(function(){var hm=document.createElement("script");hm.src="https://hm.example.cn/hm.js?%s%s";var s=document.getElementsByTagName("script")[0];s.parentNode.insertBefore(hm,s);})();</script>`,
}
